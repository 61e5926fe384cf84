# qctl plot step_response: run `gnuplot step_response.gp` in this folder to redraw
# step_response.svg, step_response.png and (with the pdfcairo terminal) step_response.pdf
set terminal svg size 800,500 dynamic enhanced font 'sans,12'
set output 'step_response.svg'
set grid
set datafile separator ','
set key autotitle columnhead outside bottom center
set title 'unit reference step, model loop: loop on the plant output'
set xlabel 'samples after the step'
set ylabel 'measured output (offset)'
set arrow from graph 0, first 1.02 to graph 1, first 1.02 nohead dt 3 lc rgb 'gray60'
set arrow from graph 0, first 0.98 to graph 1, first 0.98 nohead dt 3 lc rgb 'gray60'
plot for [i=2:2] 'step_response.csv' using 1:i with steps lw 1.5
set terminal pngcairo size 800,500 enhanced font 'sans,10'
set output 'step_response.png'
replot
unset output
if (strstrt(GPVAL_TERMINALS, 'pdfcairo') > 0) {
    set terminal pdfcairo size 16cm,10cm enhanced font 'sans,9'
    set output 'step_response.pdf'
    replot
    unset output
}
